/**
 * An API answered with something that is not JSON (a proxy's or a web server's HTML error page, a captive portal):
 * what answered, said once for every client, instead of the parser's "Unexpected token '<'". The SDK clients
 * (EKS access entries, the hooks' writers) and the raw HTTP clients (Argo CD) describe such answers here.
 */

/** What is known of a non-JSON answer. */
export interface NonJsonAnswer {
  readonly status?: number | undefined;
  readonly contentType?: string | undefined;
  /** The body, or its first bytes. */
  readonly body?: string | undefined;
  /** The URL (or endpoint) that answered. */
  readonly url?: string | undefined;
}

const SHOWN = 60;

/** One line of what answered, and the hint of what to check. */
export function describeNonJson(answer: NonJsonAnswer, service: string): { message: string; hint: string } {
  const status = answer.status === undefined ? '' : ` HTTP ${answer.status}`;
  const type = answer.contentType ? ` (${answer.contentType.split(';')[0]?.trim()})` : '';
  const body = answer.body ?? '';
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  const start = body.replace(/\s+/g, ' ').trim();
  const shown = title
    ? `; its title: "${title}"`
    : start
      ? `; it starts: ${JSON.stringify(start.length > SHOWN ? `${start.slice(0, SHOWN)}...` : start)}`
      : '';
  const where = answer.url ? ` at ${answer.url}` : '';
  return {
    message: `the ${service} endpoint${where} answered${status}${type} with something that is not JSON${shown}`,
    hint:
      'a web page answered where the API was expected: check the endpoint URL (AWS_ENDPOINT_URL, ' +
      'AWS_ENDPOINT_URL_<SERVICE>, or the configured server) and any proxy in between (HTTPS_PROXY, NO_PROXY)',
  };
}

/**
 * The answer behind an AWS SDK error that is a failed parse of a non-JSON body (the SDK throws the parser's
 * SyntaxError with the HTTP response attached), or undefined for any other error.
 */
export function sdkNonJsonAnswer(error: unknown, url: string | undefined): NonJsonAnswer | undefined {
  if (!(error instanceof Error) || error.name !== 'SyntaxError') return undefined;
  const detail = error as Error & {
    $metadata?: { httpStatusCode?: number };
    $response?: { statusCode?: number; headers?: Record<string, string | undefined>; body?: unknown };
    $responseBodyText?: string;
  };
  if (detail.$response === undefined && detail.$metadata === undefined) return undefined;
  const headers = detail.$response?.headers ?? {};
  const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const text =
    detail.$responseBodyText ??
    (typeof detail.$response?.body === 'string' ? detail.$response.body : undefined) ??
    // The parser quotes the first bytes it read: Unexpected token '<', "<!DOCTYPE "... is not valid JSON
    /"(.*)"(?:\.\.\.)? is not valid JSON/.exec(error.message)?.[1];
  return {
    status: detail.$response?.statusCode ?? detail.$metadata?.httpStatusCode,
    contentType,
    body: text,
    url,
  };
}
