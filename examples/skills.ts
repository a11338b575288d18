/**
 * A server that publishes a directory of skills (the Skills extension,
 * SEP-2640): every directory holding a SKILL.md is a skill, each file is
 * served with its digest and size.
 *
 *   npm run build && node dist/examples/skills.js [directory]    # default: examples/skills
 *   npx tessera skills http://127.0.0.1:3000/mcp incident-response
 */

import { McpServer } from 'tessera-mcp';
import { serveHttp } from 'tessera-mcp/node';
import { skills } from 'tessera-mcp/skills';
import { loadSkillDirectory } from 'tessera-mcp/skills/node';
import { exitOnListenError, listenAddress } from './listen-address.js';

const directory = process.argv[2] ?? 'examples/skills';
const address = listenAddress();
// Read once, at start: names, paths and limits checked, every digest computed; a bad skill stops the start with the reason.
const library = await loadSkillDirectory(directory);
const server = new McpServer({ name: 'skills-example', version: '1.0.0' }, { extensions: [skills(library)] });

const running = await serveHttp(server, address).catch((error: NodeJS.ErrnoException) => exitOnListenError(error, address));
console.log(`Skills (${library.skills.map((s) => s.frontmatter.name).join(', ')}) on ${running.url}`);
