/**
 * A URL-mode elicitation asked in the terminal. The full URL is shown with
 * its domain highlighted, with warnings for what can disguise a domain
 * (punycode look-alikes, a user name before "@", plain http), and the command
 * waits for the person: it never opens or fetches the URL itself.
 */

import { domainToUnicode } from 'node:url';
import type { ElicitRequestUrlParams, ElicitResult, InputContext } from 'tessera-mcp/client';
import { chooseAction, showQuestion } from './ask-form.js';
import { inertLine } from './inert-text.js';
import { colors, say } from './terminal.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface UrlReview {
  /** The URL with its domain highlighted (only the host part is styled). */
  shown: string;
  /** The host name as the browser will go to it (ASCII), or undefined when the URL cannot be read. */
  domain: string | undefined;
  warnings: string[];
}

/** Looks at a URL before a person opens it. */
export function reviewUrl(raw: string): UrlReview {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { shown: inertLine(raw), domain: undefined, warnings: ['This is not a valid URL; do not open it.'] };
  }
  const warnings: string[] = [];
  const host = url.hostname;
  if (!['https:', 'http:'].includes(url.protocol)) warnings.push(`It is a ${inertLine(url.protocol)} link, not a web page.`);
  else if (url.protocol === 'http:' && !LOOPBACK.has(host) && !host.startsWith('127.')) warnings.push('It is not encrypted (http, not https).');
  if (host.split('.').some((label) => label.startsWith('xn--'))) {
    warnings.push(
      `The domain is an internationalised name: ${host} is shown by browsers as "${inertLine(domainToUnicode(host))}". ` +
        'Letters from other alphabets can imitate a familiar site: make sure it is the one you expect.',
    );
  }
  if (url.username !== '' || url.password !== '') {
    warnings.push(`The part before "@" (${inertLine(safeDecode(url.username))}) is a user name, not the site: the site is ${host}.`);
  }
  // The URL as the browser will open it (parsed: control characters and spaces are percent-encoded there), the host highlighted.
  const href = inertLine(url.href);
  const at = href.indexOf(url.host, href.indexOf('//') + 2);
  const shown = at < 0 ? href : `${href.slice(0, at)}${colors.bold(colors.underline(colors.yellow(url.host)))}${href.slice(at + url.host.length)}`;
  return { shown, domain: host, warnings };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export async function askUrl(params: ElicitRequestUrlParams, context: InputContext): Promise<ElicitResult> {
  showQuestion(params.message, context);
  const review = reviewUrl(params.url);
  // The domain first, on its own line: nothing in the URL after it can hide or overwrite it.
  if (review.domain !== undefined) say(`  Domain: ${colors.bold(review.domain)}`);
  say(`  Open this URL in your browser: ${review.shown}`);
  for (const warning of review.warnings) say(`  ${colors.red('Warning:')} ${warning}`);
  say(colors.dim('  Nothing is opened for you. Choose Accept once you have finished there.'));
  return { action: await chooseAction('Accept (I opened it and finished there)', context.signal) };
}
