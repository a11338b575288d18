/**
 * Results on stdout: readable by default (text as text, structured content
 * as indented JSON, binary summarised, tool errors marked), or exactly as
 * received with `--json`.
 */

import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from 'tessera-mcp/client';
import { isObject } from 'tessera-mcp/protocol';
import { appUriOf } from 'tessera-mcp/apps-host';
import { inertDeep, inertJson } from './inert-text.js';
import type { Skill } from 'tessera-mcp/skills';
import { print, resultColors } from './terminal.js';
import { allowedTypes } from './tool-arguments.js';

type Json = Record<string, unknown>;

const out = resultColors;

/** JSON as received (the same value), with nothing in it a terminal would interpret. */
export function printJson(value: unknown): void {
  print(inertJson(value, 2));
}

function byteSize(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** Resource contents (embedded or read): text as is, a blob as a one-line summary (binary never goes to a terminal). */
function contentsLines(contents: Json): string[] {
  if (typeof contents.text === 'string') return [contents.text];
  if (typeof contents.blob === 'string') return [out.dim(`[binary ${String(contents.mimeType ?? 'data')}, ${byteSize(contents.blob)}; use --json to get it]`)];
  return [out.dim(JSON.stringify(contents))];
}

function blockLines(block: unknown): string[] {
  if (!isObject(block)) return [String(block)];
  switch (block.type) {
    case 'text':
      return [String(block.text ?? '')];
    case 'image':
    case 'audio':
      return [out.dim(`[${block.type} ${String(block.mimeType ?? '')}, ${byteSize(String(block.data ?? ''))}; use --json to get it]`)];
    case 'resource_link':
      return [`${out.cyan(String(block.uri))}${block.name ? ` ${out.dim(`(${String(block.name)})`)}` : ''}`];
    case 'resource': {
      const resource = isObject(block.resource) ? block.resource : {};
      return [out.dim(`── ${String(resource.uri ?? 'resource')}`), ...contentsLines(resource)];
    }
    default:
      return [JSON.stringify(block, null, 2)];
  }
}

/** The text of a tool's content as JSON, when it is one text block that parses. */
function textAsJson(blocks: readonly unknown[]): { value: unknown } | undefined {
  const [block] = blocks;
  if (blocks.length !== 1 || !isObject(block) || block.type !== 'text') return undefined;
  try {
    return { value: JSON.parse(String(block.text)) as unknown };
  } catch {
    return { value: block.text };
  }
}

/**
 * How the structured content repeats the text, if it does: as the same JSON
 * (shown once, indented), or as `{ "result": <the text> }`, the wrapper some
 * servers (FastMCP) put around a plain return value (the text is enough).
 */
function repetition(blocks: readonly unknown[], structured: unknown): 'json' | 'wrapped' | undefined {
  const text = textAsJson(blocks);
  if (text === undefined || structured === undefined) return undefined;
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (same(text.value, structured)) return 'json';
  if (isObject(structured) && Object.keys(structured).length === 1 && 'result' in structured && same(text.value, structured.result)) return 'wrapped';
  return undefined;
}

/** Prints a tool result; its exit code is 1 when the tool reported an error. */
export function printToolResult(received: CallToolResult, json: boolean): number {
  const failed = received.isError === true;
  if (json) {
    printJson(received);
    return failed ? 1 : 0;
  }
  const result = inertDeep(received);
  if (failed) print(out.red(out.bold('Tool error (isError):')));
  const blocks = Array.isArray(result.content) ? result.content : [];
  const structured = result.structuredContent;
  const repeated = repetition(blocks, structured);
  if (repeated !== 'json') for (const block of blocks) for (const line of blockLines(block)) print(line);
  if (structured !== undefined && repeated !== 'wrapped') {
    if (repeated === undefined && blocks.length > 0) print(out.dim('structured content:'));
    print(JSON.stringify(structured, null, 2));
  }
  return failed ? 1 : 0;
}

export function printResource(received: ReadResourceResult, json: boolean): void {
  if (json) return printJson(received);
  const result = inertDeep(received);
  const contents = Array.isArray(result.contents) ? result.contents : [];
  for (const { ...item } of contents) {
    if (contents.length > 1) print(out.dim(`── ${String(item.uri)}${item.mimeType ? ` (${String(item.mimeType)})` : ''}`));
    for (const line of contentsLines(item)) print(line);
  }
}

export function printPrompt(received: GetPromptResult, json: boolean): void {
  if (json) return printJson(received);
  const result = inertDeep(received);
  if (result.description) print(out.dim(result.description));
  for (const message of result.messages ?? []) {
    const lines = blockLines(message.content);
    print(`${out.bold(`${message.role}:`)} ${lines.join('\n')}`);
  }
}

/** `name=<type>` for each argument of a tool, optional ones in brackets. */
function toolSignature(tool: Tool): string {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const values = isObject(property) && Array.isArray(property.enum) ? property.enum.join('|') : [...allowedTypes(property)].join('|');
      const text = `${name}=<${values || 'value'}>`;
      return required.has(name) ? text : `[${text}]`;
    })
    .join(' ');
}

/** How a 2025-11-25 tool takes tasks (`execution.taskSupport`), as a note after its signature; none for a plain tool. */
function taskNote(tool: Tool): string {
  const execution = (tool as { execution?: unknown }).execution;
  const support = isObject(execution) ? execution.taskSupport : undefined;
  if (support === 'required') return out.dim(' (runs as a task)');
  if (support === 'optional') return out.dim(' (may run as a task)');
  return '';
}

/** ` [app ui://…]` for a tool that has an MCP app (hosts that render apps show its results in it). */
function appMark(tool: Tool): string {
  const uri = appUriOf(tool);
  return uri === undefined ? '' : ` ${out.dim(`[app ${uri}]`)}`;
}

export interface Listing {
  tools?: Tool[];
  resources?: Resource[];
  resourceTemplates?: ResourceTemplate[];
  prompts?: Prompt[];
  /** Only when the server declares the Skills extension. */
  skills?: Skill[];
}

function section(title: string, rows: Array<[string, string | undefined]> | undefined): void {
  if (rows === undefined) return;
  print(out.bold(title));
  if (rows.length === 0) print(out.dim('  (none)'));
  for (const [head, description] of rows) {
    print(`  ${head}`);
    if (description) print(`      ${out.dim(description.split('\n')[0]!)}`);
  }
}

/** `name  uri` and the description of each skill, and how many entries were refused (they break the extension's rules). */
function skillRows(skills: readonly Skill[]): Array<[string, string | undefined]> {
  return skills.map((s) => {
    const files = s.resources === 'dynamic' ? 'dynamic' : `${s.resources.length} file${s.resources.length === 1 ? '' : 's'}`;
    return [`${out.cyan(s.frontmatter.name)} ${out.dim(`${s.uri} (${files})`)}`, s.frontmatter.description];
  });
}

export function printSkills(skills: readonly Skill[], refused: number): void {
  section('Skills', skillRows(inertDeep(skills)));
  if (refused > 0) print(out.dim(`  (${refused} more listed, refused: their entries break the Skills extension's rules)`));
}

export function printListing(received: Listing, json: boolean): void {
  if (json) return printJson(received);
  const listing = inertDeep(received);
  section('Tools', listing.tools?.map((t) => [`${`${out.cyan(t.name)} ${toolSignature(t)}`.trimEnd()}${taskNote(t)}${appMark(t)}`, t.description]));
  section('Resources', listing.resources?.map((r) => [`${out.cyan(r.uri)}${r.name && r.name !== r.uri ? ` ${out.dim(`(${r.name})`)}` : ''}`, r.description]));
  section('Resource templates', listing.resourceTemplates?.map((r) => [`${out.cyan(r.uriTemplate)} ${out.dim(`(${r.name})`)}`, r.description]));
  section(
    'Prompts',
    listing.prompts?.map((p) => [
      `${out.cyan(p.name)} ${(p.arguments ?? []).map((a) => (a.required ? `${a.name}=<string>` : `[${a.name}=<string>]`)).join(' ')}`.trimEnd(),
      p.description,
    ]),
  );
  if (listing.skills) section('Skills', skillRows(listing.skills));
}
