import type { Endpoint, SourceConfig } from "../config/types.js";
import { requestUrl } from "../poll/endpoints.js";
import type { PollOutcome } from "../poll/poll-endpoint.js";
import { credentialsUsed } from "../upstream/credentials-used.js";
import { otherKindHint } from "../upstream/other-kind.js";
import { type PollError, withContext } from "../upstream/poll-error.js";
import { tenantHint } from "../upstream/tenant-hint.js";

type OtherKindCheck = (source: SourceConfig, signal?: AbortSignal) => Promise<string | undefined>;

/**
 * What a configured source's failed polls tell its operator besides the failure: the request (method
 * and path: no credentials, no query), and where a setting is the likely cause, which one: the
 * credentials sent with a 401 or 403; after a 404, whether the URL answers as the other kind. That
 * check costs one request, made after the first 404 and not again until a poll of the source succeeds.
 */
export class FailureHints {
  private otherKind: Promise<string | undefined> | undefined;

  constructor(
    private readonly source: SourceConfig,
    private readonly checkOtherKind: OtherKindCheck = otherKindHint,
  ) {}

  /** The outcomes of one poll of the source (one per endpoint), their failures explained. */
  async explain(endpoints: readonly Endpoint[], outcomes: readonly PollOutcome[], signal?: AbortSignal) {
    if (outcomes.every((o) => o.ok)) this.otherKind = undefined;
    return Promise.all(
      outcomes.map(async (outcome, i) => {
        const endpoint = endpoints[i];
        if (outcome.ok || endpoint === undefined) return outcome;
        return { ...outcome, error: await this.explainError(endpoint, outcome.error, signal) };
      }),
    );
  }

  private async explainError(endpoint: Endpoint, error: PollError, signal?: AbortSignal): Promise<PollError> {
    const url = requestUrl(this.source, endpoint);
    const request = `GET ${new URL(url).pathname}`;
    const hint = await this.hintFor(url, error, signal);
    return withContext(error, hint ? { request, hint } : { request });
  }

  private async hintFor(url: string, error: PollError, signal?: AbortSignal): Promise<string | undefined> {
    if (error.reason !== "http_status") return undefined;
    // Mimir's 401 `no org id` wants a tenant header, not other credentials.
    if (error.status === 401 || error.status === 403)
      return tenantHint(error, this.source.http) ?? credentialsUsed(url, this.source.http);
    if (error.status !== 404) return undefined;
    // Endpoints failing in the same poll share the one check.
    this.otherKind ??= this.checkOtherKind(this.source, signal);
    return this.otherKind;
  }
}
