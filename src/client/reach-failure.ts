/**
 * Why fetch could not reach a server, in words a person can act on. fetch
 * says only "fetch failed"; the socket's or the resolver's reason is a code
 * in its cause (ECONNREFUSED, ENOTFOUND, ERR_SSL_WRONG_VERSION_NUMBER…).
 */

const TLS_CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The innermost error code (and message) fetch's error carries. */
function networkCause(error: unknown): { code?: string; message?: string } {
  let found: { code?: string; message?: string } = {};
  let cause: unknown = (error as { cause?: unknown })?.cause;
  for (let depth = 0; cause && typeof cause === 'object' && depth < 4; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') found = { code, ...(typeof message === 'string' ? { message } : {}) };
    else if (!found.code && typeof message === 'string') found = { message };
    cause = (cause as { cause?: unknown }).cause;
  }
  return found;
}

/** One sentence: what happened reaching `url`, then the code it came with. */
export function reachFailure(url: string, error: unknown): string {
  const { code, message } = networkCause(error);
  const { host, hostname, protocol } = new URL(url);
  switch (true) {
    case code === 'ECONNREFUSED':
      return `nothing is listening on ${host} (ECONNREFUSED): is the server running, on that host and port?`;
    case code === 'ENOTFOUND' || code === 'EAI_NONAME':
      return `no such host: ${hostname} (${code})`;
    case code === 'EAI_AGAIN':
      return `the name ${hostname} could not be looked up right now (EAI_AGAIN)`;
    case protocol === 'https:' && (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || code === 'EPROTO' || /wrong version number/i.test(message ?? '')):
      return `TLS to a plain-HTTP server: ${host} does not speak https (${code ?? 'wrong version number'}); try http://`;
    case code !== undefined && TLS_CERTIFICATE_CODES.has(code):
      return `the server's TLS certificate is not trusted (${code})`;
    case code === 'ECONNRESET':
      return `${host} closed the connection (ECONNRESET)`;
    case code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT':
      return `connecting to ${host} timed out (${code})`;
    case code === 'EHOSTUNREACH' || code === 'ENETUNREACH':
      return `${host} cannot be reached from here (${code})`;
    case code !== undefined:
      return message && !message.includes(code) ? `${message} (${code})` : (message ?? code);
    default:
      return message ?? (error instanceof Error ? error.message : String(error));
  }
}
