/**
 * Command-line options of the bench scripts, parsed by `node:util`'s `parseArgs`: an unknown option or a
 * value that is not a whole number stops the script with a message naming it, instead of being ignored.
 */
import { parseArgs } from 'node:util'

/** One option: a flag, or a whole number of at least `min`. */
export type OptionSpec = { readonly type: 'flag' } | { readonly type: 'integer'; readonly min: number }

/** The parsed value of each option: a flag is true or false, an absent number undefined. */
export type ParsedOptions<S extends Record<string, OptionSpec>> = {
  readonly [K in keyof S]: S[K] extends { type: 'flag' } ? boolean : number | undefined
}

/** One line per option, for `--help` and for a wrong option. */
function usage(spec: Record<string, OptionSpec>): string {
  const lines = Object.entries(spec).map(([name, o]) =>
    o.type === 'flag' ? `  --${name}` : `  --${name} N   (a whole number ≥ ${o.min})`,
  )
  return ['options:', ...lines, '  --help', 'Each bench is described in docs/benchmarks.md.'].join('\n')
}

/**
 * Parses `--name` flags and `--name N` numbers. `--help` prints the options and exits 0; an unknown
 * option, a positional argument or a bad number prints what was wrong and the options, and exits 2 —
 * one message, no stack trace.
 *
 * @param argv - the arguments after the script name
 * @param spec - each option by its name without the dashes
 * @returns the values, by option name
 */
export function parseOptions<S extends Record<string, OptionSpec>>(
  argv: readonly string[],
  spec: S,
): ParsedOptions<S> {
  if (argv.includes('--help')) {
    console.log(usage(spec))
    process.exit(0)
  }
  try {
    return parseStrict(argv, spec)
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage(spec)}`)
    process.exit(2)
  }
}

function parseStrict<S extends Record<string, OptionSpec>>(
  argv: readonly string[],
  spec: S,
): ParsedOptions<S> {
  const options = Object.fromEntries(
    Object.entries(spec).map(([name, o]) => [
      name,
      { type: o.type === 'flag' ? 'boolean' : 'string' } as const,
    ]),
  )
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false })
  const out: Record<string, boolean | number | undefined> = {}
  for (const [name, o] of Object.entries(spec)) {
    const raw = values[name]
    if (o.type === 'flag') {
      out[name] = raw === true
      continue
    }
    if (typeof raw !== 'string') {
      out[name] = undefined
      continue
    }
    const value = Number(raw)
    if (!Number.isSafeInteger(value) || value < o.min)
      throw new Error(`--${name} takes a whole number of at least ${o.min}, got ${raw}`)
    out[name] = value
  }
  return out as ParsedOptions<S>
}
