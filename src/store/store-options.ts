/**
 * The options of `openContextStore`, checked before anything touches the file. A typo must not quietly
 * change what the caller asked for: an unknown key, `synchronous: 'ful'` (which would give NORMAL and lose
 * the durability asked for), a limit of the wrong type or out of bounds — each is refused with
 * `INVALID_OPTIONS` naming the option.
 */
import { z } from 'zod'
import { ContextLedgerError } from '../errors.js'
import {
  isInMemory,
  PAGE_SIZES,
  type DatabaseSettings,
  type OpenDatabaseOptions,
  type PageSize,
} from '../db/open.js'
import { describeValue, resolveMessageLimits, type MessageLimits } from '../messages/limits.js'
import { optionsError } from '../window/window-options.js'

/** Options for `openContextStore`. */
export interface ContextStoreOptions extends OpenDatabaseOptions {
  /**
   * Validation limits for incoming messages: `maxDepth` an integer in [10, 1000] (default 64),
   * `maxStringLength` an integer in [256, 256 Mi] (default 16 Mi).
   */
  limits?: Partial<MessageLimits> | undefined
  /**
   * Called when work the store does in the background failed: the full-text index's idle pass (see
   * `store.indexPending()`), which indexes waiting messages at the event loop's next turn after a write.
   * Such a failure never throws into the event loop; the messages stay waiting — searches still find
   * them — and a later pass, or a write once too many wait, indexes them. Given a `ContextLedgerError`
   * (`STORAGE_FULL`, `STORAGE_ERROR`, `READ_ONLY`, `CORRUPT_DATABASE` …); another connection holding the
   * lock is not a failure (the pass is left to the next write). What it throws is ignored. Default: none
   * (failures are dropped).
   */
  onBackgroundError?: ((error: ContextLedgerError) => void) | undefined
}

/** Checked store options with their defaults filled in. */
export interface StoreSettings extends DatabaseSettings {
  /** Validation limits. */
  readonly limits: Readonly<MessageLimits>
  /** Where background failures go, if anywhere. */
  readonly onBackgroundError: ((error: ContextLedgerError) => void) | undefined
}

/**
 * The key under which the command line passes a SQLite URI to open a file with (see
 * `DatabaseSettings.uri`). A symbol: options given by a caller are read by their string keys only, so no
 * caller sets it by accident.
 *
 * @internal
 */
export const SQLITE_URI: unique symbol = Symbol('context-ledger sqlite uri')

/** The largest busy timeout SQLite takes (a C `int` of milliseconds, ~24.8 days). */
const MAX_BUSY_TIMEOUT_MS = 2 ** 31 - 1

const schema = z.strictObject({
  busyTimeoutMs: z.number().int().min(0).max(MAX_BUSY_TIMEOUT_MS).optional(),
  synchronous: z
    .string()
    .refine((s) => /^(normal|full)$/i.test(s), "expected 'normal' or 'full' (any letter case)")
    .optional(),
  readonly: z.boolean().optional(),
  mustExist: z.boolean().optional(),
  pageSize: z.number().refine(isPageSize, 'expected a power of two from 512 to 65536 (bytes)').optional(),
  limits: z.unknown().optional(),
  onBackgroundError: z
    .custom<(error: ContextLedgerError) => void>((v) => typeof v === 'function', 'expected a function')
    .optional(),
})

function isPageSize(n: number): n is PageSize {
  return (PAGE_SIZES as readonly number[]).includes(n)
}

/** A plain copy of an options object's own enumerable properties (nested objects copied the same way). */
function ownCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) out[key] = ownCopy((value as Record<string, unknown>)[key])
  return out
}

/**
 * Checks the path and options given to `openContextStore` and fills in the defaults.
 *
 * @param path - the file path, `':memory:'` or `''`
 * @param options - what the caller passed
 * @returns complete settings
 * @throws ContextLedgerError `INVALID_OPTIONS` naming the option (`path` set to it)
 */
export function resolveStoreOptions(path: unknown, options: unknown): StoreSettings {
  if (typeof path !== 'string')
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `openContextStore takes a file path (a string), got ${describeValue(path)}`,
      { path: 'path' },
    )
  if (path.includes('\0'))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `openContextStore takes a file path without NUL characters, got ${JSON.stringify(path)}`,
      { path: 'path' },
    )
  let parsed: ReturnType<typeof schema.safeParse>
  let uri: unknown
  try {
    // Own properties only, read once: a getter or Proxy that throws is a bad option, not a crash.
    parsed = schema.safeParse(options === undefined ? {} : ownCopy(options))
    if (typeof options === 'object' && options !== null)
      uri = (options as { [SQLITE_URI]?: unknown })[SQLITE_URI]
  } catch (cause) {
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `openContextStore options could not be read: ${cause instanceof Error ? cause.message : String(cause)}`,
      { path: 'options', cause },
    )
  }
  if (!parsed.success) throw optionsError(parsed.error, 'openContextStore')
  const o = parsed.data
  const readonly = o.readonly ?? false
  const mustExist = o.mustExist ?? false
  if ((readonly || mustExist) && isInMemory(path))
    throw new ContextLedgerError(
      'INVALID_OPTIONS',
      `Invalid openContextStore options at ${readonly ? 'readonly' : 'mustExist'}: an in-memory store has no file to ${readonly ? 'read' : 'require'}`,
      { path: readonly ? 'readonly' : 'mustExist' },
    )
  return Object.freeze({
    // `+ 0` turns -0 (an integer ≥ 0 to zod) into 0, which SQLite's timeout argument takes.
    busyTimeoutMs: (o.busyTimeoutMs ?? 5000) + 0,
    synchronous: o.synchronous?.toLowerCase() === 'full' ? 'FULL' : 'NORMAL',
    readonly,
    mustExist,
    pageSize: o.pageSize !== undefined && isPageSize(o.pageSize) ? o.pageSize : undefined,
    limits: resolveMessageLimits(o.limits, 'limits'),
    onBackgroundError: o.onBackgroundError,
    ...(typeof uri === 'string' && readonly ? { uri } : {}),
  })
}
