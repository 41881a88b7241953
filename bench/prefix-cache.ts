/**
 * What a provider's prompt cache can serve of a run of model requests (row h's measure, shared by
 * `bench/cache.ts` and `bench/ai-sdk-chat.ts`): per request, the cached part is the longest run of leading
 * messages equal to the leading messages of the previous request — what a cache breakpoint at the end of
 * every request lets the next one read back — counted in tokens.
 */

/** Anthropic prompt caching (5-minute cache): a cache read costs 0.1× the base input price. */
export const CACHE_READ = 0.1
/** Anthropic prompt caching (5-minute cache): a cache write costs 1.25× the base input price. */
export const CACHE_WRITE = 1.25

/**
 * A message as a provider gets it, keys sorted (key order is not content).
 *
 * @param value - the message
 * @returns its canonical JSON
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  )
}

/** Counts, over a run of requests, the input tokens and the part of them a prefix cache serves. */
export class PrefixCounter<M> {
  private previous: string[] = []
  /** Requests counted. */
  requests = 0
  /** Input tokens of those requests. */
  tokens = 0
  /** Messages in those requests. */
  messages = 0
  /** Of the tokens, those in a prefix of the previous request. */
  cached = 0
  /** Of the tokens, those of messages the previous request did not hold anywhere. */
  fresh = 0
  /** Requests that did not start with the whole previous request. */
  breaks = 0

  /**
   * @param count - a message's tokens
   * @param key - what two messages must share to be equal (default: {@link canonical})
   */
  constructor(
    private readonly count: (message: M) => number,
    private readonly key: (message: M) => string = canonical,
  ) {}

  /**
   * Counts one request.
   *
   * @param messages - the request's messages, as the provider gets them
   * @returns the messages' keys, in order
   */
  request(messages: readonly M[]): string[] {
    const keys = messages.map(this.key)
    const held = new Set(this.previous)
    let k = 0
    while (k < keys.length && k < this.previous.length && keys[k] === this.previous[k]) k++
    this.requests++
    this.messages += messages.length
    messages.forEach((m, i) => {
      const t = this.count(m)
      this.tokens += t
      if (i < k) this.cached += t
      if (!held.has(keys[i] as string)) this.fresh += t
    })
    if (this.requests > 1 && k < this.previous.length) this.breaks++
    this.previous = keys
    return keys
  }

  /**
   * Makes the next request the first counted one, keeping the last request as the prefix it is compared
   * with (after warm-up turns).
   */
  restart(): void {
    this.requests = this.tokens = this.messages = this.cached = this.fresh = this.breaks = 0
  }

  /** @returns cached ÷ all input tokens (NaN before any request) */
  share(): number {
    return this.cached / this.tokens
  }
}
