/**
 * An authorization server's metadata, as the resource server needs it: where
 * its keys are (`jwks_uri`) and where it introspects tokens. Found the way
 * clients find it (RFC 8414, then OpenID Connect Discovery, in the spec's
 * order), accepted only when its `issuer` is exactly the issuer asked about
 * (RFC 8414 §3.3), kept once found; after a failure, tried again no sooner
 * than `retryMs` later (remote-document.ts), however many tokens name it.
 */

import { authorizationServerMetadataUrls } from '../../protocol/oauth-urls.js';
import { TokenCheckUnavailableError } from './errors.js';
import { fetchJsonObject, secureUrl, type OutboundHttp } from './http.js';
import { RemoteDocument } from './remote-document.js';

export class IssuerMetadata {
  private readonly documents = new Map<string, RemoteDocument<Record<string, unknown>>>();

  constructor(
    private readonly http: OutboundHttp,
    private readonly retryMs: number,
  ) {}

  /** The metadata of `issuer`, fetched once (only trusted issuers are asked about, so the map stays small). */
  of(issuer: string, now: () => number): Promise<Record<string, unknown>> {
    let document = this.documents.get(issuer);
    if (!document) {
      document = new RemoteDocument(() => this.discover(issuer), { maxAgeMs: Number.POSITIVE_INFINITY, retryMs: this.retryMs });
      this.documents.set(issuer, document);
    }
    return document.get(now);
  }

  /** An endpoint of `issuer`'s metadata, checked against the transport-security rule. */
  async endpoint(issuer: string, name: 'jwks_uri' | 'introspection_endpoint', now: () => number): Promise<string> {
    const value = (await this.of(issuer, now))[name];
    if (typeof value !== 'string') throw new TokenCheckUnavailableError(`The metadata of ${issuer} has no ${name}`);
    try {
      return secureUrl(value, this.http, `${issuer}'s ${name}`).href;
    } catch (error) {
      throw new TokenCheckUnavailableError((error as Error).message);
    }
  }

  private async discover(issuer: string): Promise<Record<string, unknown>> {
    try {
      secureUrl(issuer, this.http, 'The issuer');
    } catch (error) {
      throw new TokenCheckUnavailableError((error as Error).message);
    }
    const misses: string[] = [];
    for (const url of authorizationServerMetadataUrls(issuer)) {
      let document: Record<string, unknown>;
      try {
        document = await fetchJsonObject(url, { headers: { accept: 'application/json' } }, this.http);
      } catch (error) {
        misses.push((error as Error).message);
        continue;
      }
      // Simple string comparison, no normalisation (RFC 8414 §3.3): otherwise a document could hand out another server's keys.
      if (document.issuer !== issuer) {
        throw new TokenCheckUnavailableError(`The metadata at ${url} names issuer ${JSON.stringify(document.issuer)}, not ${issuer}`);
      }
      return document;
    }
    throw new TokenCheckUnavailableError(`No authorization server metadata for ${issuer}: ${misses.join('; ')}`);
  }
}
