/**
 * The sandbox proxy page (SEP-1865 "Sandbox proxy"): a web host frames it from
 * an origin of its own, and it runs the app inside itself. It says
 * `ui/notifications/sandbox-proxy-ready`; given the app's HTML and CSP in
 * `ui/notifications/sandbox-resource-ready`, it loads the page as the srcdoc of
 * an inner iframe with the policy in a `<meta>` before anything else in the
 * document, sandboxed without `allow-same-origin` (the app gets an opaque
 * origin, so it cannot reach into this page and out of its policy); then it
 * relays every other message between the host (only the origin that sent the
 * resource) and the app (only that iframe).
 *
 * The page is one string with its script inline: serve `sandboxProxyHtml()`
 * from another origin than the host page, without a CSP header of its own (an
 * srcdoc document inherits it: the app would get that policy too).
 */

import { appContentSecurityPolicy } from '../csp.js';

/**
 * Runs in the proxy page. Self-contained (its source text is the page's
 * script): everything it uses is a parameter or a browser global.
 */
function proxy(policyOf: typeof appContentSecurityPolicy): void {
  const reserved = 'ui/notifications/sandbox-';
  // What a host may grant the app's frame; never allow-same-origin (the app could then script this page) nor top navigation.
  const grantable = ['allow-scripts', 'allow-forms', 'allow-modals', 'allow-popups', 'allow-downloads', 'allow-pointer-lock'];
  const features: Record<string, string> = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };
  let host: string | undefined;
  let view: HTMLIFrameElement | undefined;
  window.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { jsonrpc?: unknown; method?: unknown; params?: unknown } | null;
    if (typeof data !== 'object' || data === null || data.jsonrpc !== '2.0') return;
    const internal = typeof data.method === 'string' && data.method.startsWith(reserved);
    if (event.source === window.parent) {
      if (data.method === `${reserved}resource-ready`) {
        const params = (typeof data.params === 'object' && data.params !== null ? data.params : {}) as Record<string, unknown>;
        // One app per proxy page, once.
        if (view || typeof params.html !== 'string') return;
        host = event.origin;
        // Forms work by default (their submission stays in the page: the policy has form-action 'none').
        const asked = typeof params.sandbox === 'string' ? params.sandbox.split(/\s+/) : ['allow-forms'];
        const sandbox = ['allow-scripts', ...asked.filter((token) => token !== 'allow-scripts' && grantable.includes(token))];
        const permissions = (typeof params.permissions === 'object' && params.permissions !== null ? params.permissions : {}) as Record<string, unknown>;
        const allow = Object.keys(features).filter((name) => permissions[name] !== undefined).map((name) => features[name]);
        const meta = `<meta http-equiv="Content-Security-Policy" content="${policyOf(params.csp).policy.replace(/"/g, '&quot;')}">`;
        const html = params.html;
        // The policy goes first in the document, right after a doctype (and comments before it) if there is one.
        const head = /^\s*(?:<!--[\s\S]*?-->\s*)*<!doctype[^>]*>/i.exec(html);
        const at = head ? head[0].length : 0;
        view = document.createElement('iframe');
        view.setAttribute('sandbox', sandbox.join(' '));
        if (allow.length > 0) view.setAttribute('allow', allow.join('; '));
        view.srcdoc = html.slice(0, at) + meta + html.slice(at);
        document.body.appendChild(view);
        return;
      }
      if (internal || event.origin !== host || !view) return;
      view.contentWindow?.postMessage(data, '*');
    } else if (view && event.source === view.contentWindow) {
      if (internal || host === undefined) return;
      window.parent.postMessage(data, host);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: `${reserved}proxy-ready`, params: {} }, '*');
}

/** The sandbox proxy page: serve it (text/html) from an origin other than the host page's, and give its URL to `openApp`. */
export function sandboxProxyHtml(): string {
  const script = `(${proxy.toString()})(${appContentSecurityPolicy.toString()});`;
  if (/<\/script/i.test(script)) throw new Error('The sandbox proxy script cannot be inlined (it contains </script)');
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><title>MCP app sandbox</title>',
    '<style>html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}</style>',
    `</head><body><script>${script}</script></body></html>`,
  ].join('\n');
}
