/**
 * Reads the `WWW-Authenticate` challenges of a 401/403 (RFC 9110 §11.6.1,
 * RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1): the scheme, and the parameters
 * MCP uses — `resource_metadata`, `scope`, `error`, `error_description`.
 */

export interface Challenge {
  /** Lower-cased: `bearer`, `dpop`… */
  scheme: string;
  /** Parameter names lower-cased, values unquoted. */
  params: Record<string, string>;
}

/** What the client needs from a challenge response. */
export interface ResourceChallenge {
  status: number;
  /** `Bearer` or `DPoP` (the first of those the server offered), lower-cased. */
  scheme: string | undefined;
  error: string | undefined;
  errorDescription: string | undefined;
  /** The scopes the server says this request needs (authoritative, RFC 6750 §3). */
  scopes: string[] | undefined;
  /** The Protected Resource Metadata URL (RFC 9728 §5.1). */
  resourceMetadata: string | undefined;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** Parses a header value that may hold several challenges, each with comma-separated auth-params. */
export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let rest = header.trim();
  let current: Challenge | undefined;
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, '');
    const name = TOKEN.exec(rest)?.[0];
    if (!name) break;
    const after = rest.slice(name.length);
    const param = /^\s*=\s*/.exec(after);
    if (param && current && !/^\s*=\s*=/.test(after)) {
      // name=value or name="quoted value"
      let value: string;
      let tail = after.slice(param[0].length);
      if (tail.startsWith('"')) {
        let i = 1;
        value = '';
        while (i < tail.length && tail[i] !== '"') {
          if (tail[i] === '\\' && i + 1 < tail.length) i++;
          value += tail[i];
          i++;
        }
        tail = tail.slice(i + 1);
      } else {
        value = TOKEN.exec(tail)?.[0] ?? '';
        tail = tail.slice(value.length);
      }
      current.params[name.toLowerCase()] = value;
      rest = tail;
      continue;
    }
    // A new challenge: scheme [token68 | params]
    current = { scheme: name.toLowerCase(), params: {} };
    challenges.push(current);
    rest = after.trimStart();
    const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(rest);
    if (token68 && !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(rest)) rest = rest.slice(token68[0].length);
  }
  return challenges;
}

/** The challenge the client acts on: DPoP or Bearer, whichever comes first (parameters of the other fill gaps). */
export function readChallenge(response: Response): ResourceChallenge {
  const header = response.headers.get('www-authenticate') ?? '';
  const all = parseChallenges(header).filter((c) => c.scheme === 'bearer' || c.scheme === 'dpop');
  const params: Record<string, string> = {};
  for (const challenge of [...all].reverse()) Object.assign(params, challenge.params);
  const scope = params.scope?.split(/\s+/).filter(Boolean);
  return {
    status: response.status,
    scheme: all[0]?.scheme,
    error: params.error,
    errorDescription: params.error_description,
    scopes: scope && scope.length > 0 ? scope : undefined,
    resourceMetadata: params.resource_metadata,
  };
}
