/**
 * The browser example: Tessera's client in a page. It connects to the server
 * named by `?server=` (default http://127.0.0.1:3000/mcp; CORS must be on
 * there), lists the tools a model may see, calls the one picked with
 * arguments from a form made of its inputSchema, and when the server asks (an
 * `input_required` round) shows the question as a form made of its
 * `requestedSchema`; the client retries with the answer and the page shows
 * the result. A tool with an MCP app gets its app too, framed through the
 * sandbox proxy named by `?sandbox=` (default http://127.0.0.1:3001/); the
 * app's own tool calls ask their questions in the same form.
 */

import { Client, type CallToolResult, type ElicitRequestFormParams, type ElicitResult, type Tool } from 'tessera-mcp/client';
import { appsCapabilities, appUriOf, modelTools, openApp, type AppView } from 'tessera-mcp/apps-host';
import { readForm, renderForm, type ObjectSchema } from './form.js';

const params = new URLSearchParams(location.search);
const serverUrl = params.get('server') ?? 'http://127.0.0.1:3000/mcp';
const sandboxUrl = params.get('sandbox') ?? 'http://127.0.0.1:3001/';
const element = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const status = element<HTMLParagraphElement>('status');

/** Shows the question and resolves with the user's answer (submit, or decline). */
function answerForm(params: ElicitRequestFormParams): Promise<ElicitResult> {
  const section = element<HTMLElement>('question');
  const form = element<HTMLFormElement>('answer');
  element('question-message').textContent = params.message;
  const decline = document.createElement('button');
  decline.type = 'button';
  decline.textContent = 'Decline';
  renderForm(form, params.requestedSchema as ObjectSchema, 'Submit', decline);
  section.hidden = false;
  element('question-answer').textContent = '';
  return new Promise((resolve) => {
    // The answered question stays on the page, read-only, beside the result.
    const done = (result: ElicitResult): void => {
      for (const control of form.elements) (control as HTMLInputElement).disabled = true;
      element('question-answer').textContent = result.action === 'accept' ? 'Answered.' : 'Declined.';
      resolve(result);
    };
    form.onsubmit = (event) => {
      event.preventDefault();
      done({ action: 'accept', content: readForm(form, params.requestedSchema as ObjectSchema) });
    };
    decline.onclick = () => done({ action: 'decline' });
  });
}

function showResult(result: CallToolResult): void {
  const text = result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
  const output = element<HTMLPreElement>('result-text');
  output.textContent = text;
  output.className = result.isError ? 'error' : '';
  element('result').hidden = false;
}

/** The app on the page, if any: one at a time. */
let app: AppView | undefined;

/** Calls the tool, in its app when it has one. */
async function run(client: Client, tool: Tool, tools: Tool[], args: Record<string, unknown>): Promise<CallToolResult> {
  await app?.close('another tool was called');
  app = undefined;
  element('app').hidden = true;
  if (!appUriOf(tool)) return client.callTool(tool.name, args);
  element('app').hidden = false;
  app = await openApp({ client, tool, tools, container: element('app-frame'), sandbox: sandboxUrl, maxHeight: 600 });
  return app.callTool(args);
}

function pick(client: Client, tool: Tool, tools: Tool[]): void {
  const form = element<HTMLFormElement>('arguments');
  element('call-title').textContent = tool.title ?? tool.name;
  element('call-description').textContent = tool.description ?? '';
  renderForm(form, tool.inputSchema as ObjectSchema, `Call ${tool.name}`);
  element('call').hidden = false;
  element('question').hidden = true;
  element('result').hidden = true;
  form.onsubmit = async (event) => {
    event.preventDefault();
    status.textContent = `Calling ${tool.name}…`;
    try {
      showResult(await run(client, tool, tools, readForm(form, tool.inputSchema as ObjectSchema)));
      status.textContent = `Connected to ${serverUrl}`;
    } catch (error) {
      status.textContent = `The call failed: ${(error as Error).message}`;
    }
  };
}

async function main(): Promise<void> {
  status.textContent = `Connecting to ${serverUrl}…`;
  try {
    const client = await new Client(
      { name: 'tessera-browser-example', version: '0.1.0' },
      { elicitation: { form: answerForm }, capabilities: appsCapabilities() },
    ).connect(serverUrl);
    const tools = await client.listAllTools();
    const list = element<HTMLUListElement>('tools');
    list.replaceChildren(
      // App-only tools are the apps': a model (here, the user) is not offered them.
      ...modelTools(tools).map((tool) => {
        const button = document.createElement('button');
        button.textContent = tool.name;
        button.onclick = () => pick(client, tool, tools);
        const item = document.createElement('li');
        item.append(button, ` ${tool.description ?? ''}`);
        return item;
      }),
    );
    status.textContent = `Connected to ${serverUrl}`;
  } catch (error) {
    status.textContent = `Could not connect to ${serverUrl}: ${(error as Error).message}`;
    status.className = 'error';
  }
}

void main();
