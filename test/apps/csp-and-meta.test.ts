/**
 * What both sides read and build (SEP-1865): the Content-Security-Policy of
 * an app from its declared origins (the spec's restrictive default when none,
 * each list in its directives, nothing a server could smuggle in), the sandbox
 * proxy page that carries it, and a tool's link to its app and visibility as
 * read from untrusted `_meta`.
 */

import { describe, expect, it } from 'vitest';
import { appContentSecurityPolicy, appUriOf, modelTools, rendersApps, sandboxProxyHtml, visibilityOf } from '../../src/apps-host.js';

const directives = (policy: string): Record<string, string> =>
  Object.fromEntries(policy.split('; ').map((d) => [d.slice(0, d.indexOf(' ')), d.slice(d.indexOf(' ') + 1)]));

describe('the app policy', () => {
  it("is the spec's restrictive default when nothing is declared (plus no frames, no plugins, no form posts)", () => {
    const { policy, refused } = appContentSecurityPolicy(undefined);
    expect(refused).toEqual([]);
    expect(directives(policy)).toEqual({
      'default-src': "'none'",
      'script-src': "'self' 'unsafe-inline'",
      'style-src': "'self' 'unsafe-inline'",
      'img-src': "'self' data:",
      'font-src': "'self'",
      'media-src': "'self' data:",
      'connect-src': "'none'",
      'frame-src': "'none'",
      'object-src': "'none'",
      'form-action': "'none'",
      'base-uri': "'self'",
    });
  });

  it('puts each declared list in the directives the spec maps it to', () => {
    const { policy, approved } = appContentSecurityPolicy({
      connectDomains: ['https://api.example.com', 'wss://live.example.com'],
      resourceDomains: ['https://*.cdn.example.com'],
      frameDomains: ['https://www.youtube.com'],
      baseUriDomains: ['https://cdn.example.com/app/'],
    });
    expect(directives(policy)).toMatchObject({
      'script-src': "'self' 'unsafe-inline' https://*.cdn.example.com",
      'style-src': "'self' 'unsafe-inline' https://*.cdn.example.com",
      'img-src': "'self' data: https://*.cdn.example.com",
      'font-src': "'self' https://*.cdn.example.com",
      'media-src': "'self' data: https://*.cdn.example.com",
      'connect-src': 'https://api.example.com wss://live.example.com',
      'frame-src': 'https://www.youtube.com',
      'base-uri': 'https://cdn.example.com/app/',
      'default-src': "'none'",
    });
    expect(approved.connectDomains).toEqual(['https://api.example.com', 'wss://live.example.com']);
  });

  it('keeps what a hostile server declares out of it: entries refused, one by one, the rest kept', () => {
    const { policy, approved, refused } = appContentSecurityPolicy({
      connectDomains: ['https://ok.example.com', "https://x.example; script-src 'unsafe-eval'", '*', 'https:', 'https://a.example,https://b.example', 7],
      resourceDomains: "'unsafe-inline'",
      frameDomains: ['data:', 'https://x.example/"><script>'],
    });
    expect(approved).toEqual({ connectDomains: ['https://ok.example.com'], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    expect(refused).toEqual([
      "connectDomains: https://x.example; script-src 'unsafe-eval'",
      'connectDomains: *',
      'connectDomains: https:',
      'connectDomains: https://a.example,https://b.example',
      'connectDomains: 7',
      'resourceDomains: not a list',
      'frameDomains: data:',
      'frameDomains: https://x.example/"><script>',
    ]);
    expect(policy).not.toMatch(/unsafe-eval|\*(?!\.)|"|</);
    expect(policy.split('; ')).toHaveLength(11);
  });
});

describe('the sandbox proxy page', () => {
  const html = sandboxProxyHtml();

  it('is one HTML document whose inline script parses, and carries the policy builder with it', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(() => new Function(scripts[0]!)).not.toThrow();
    expect(scripts[0]).toContain("default-src 'none'");
    expect(scripts[0]).toContain('ui/notifications/sandbox-');
  });
});

describe("a tool's app and visibility, from untrusted _meta", () => {
  it('reads the link from _meta.ui.resourceUri, else the deprecated flat key, and only ui:// URIs', () => {
    expect(appUriOf({ _meta: { ui: { resourceUri: 'ui://a' } } })).toBe('ui://a');
    expect(appUriOf({ _meta: { 'ui/resourceUri': 'ui://b' } })).toBe('ui://b');
    expect(appUriOf({ _meta: { ui: { resourceUri: 'ui://a' }, 'ui/resourceUri': 'ui://b' } })).toBe('ui://a');
    for (const meta of [undefined, {}, { ui: 'x' }, { ui: { resourceUri: 'https://x' } }, { ui: { resourceUri: 5 } }, { 'ui/resourceUri': 'file:///x' }]) {
      expect(appUriOf({ _meta: meta as Record<string, unknown> })).toBeUndefined();
    }
  });

  it('reads visibility (both by default), ignoring what it does not know', () => {
    expect(visibilityOf({})).toEqual(['model', 'app']);
    expect(visibilityOf({ _meta: { ui: { visibility: ['app'] } } })).toEqual(['app']);
    expect(visibilityOf({ _meta: { ui: { visibility: ['model', 'agent'] } } })).toEqual(['model']);
    expect(visibilityOf({ _meta: { ui: { visibility: 'app' } } })).toEqual(['model', 'app']);
    expect(visibilityOf({ _meta: { ui: { visibility: [] } } })).toEqual([]);
  });

  it("keeps app-only tools (and tools no one may use) from the model's list", () => {
    const tools = [
      { name: 'a', _meta: { ui: { visibility: ['app'] } } },
      { name: 'b' },
      { name: 'c', _meta: { ui: { visibility: ['model'] } } },
      { name: 'd', _meta: { ui: { visibility: [] } } },
    ];
    expect(modelTools(tools).map((t) => t.name)).toEqual(['b', 'c']);
  });

  it('knows a client that renders apps by the extension and its MIME type', () => {
    expect(rendersApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } })).toBe(true);
    expect(rendersApps({ extensions: { 'io.modelcontextprotocol/ui': {} } })).toBe(false);
    expect(rendersApps({})).toBe(false);
    expect(rendersApps(undefined)).toBe(false);
  });
});
