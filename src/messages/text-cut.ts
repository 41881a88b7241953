/**
 * Cutting text without splitting a surrogate pair. Lengths are UTF-16 code units, as JavaScript counts
 * them; a cut that would land between the two halves of a pair moves one unit inwards, so the kept part
 * is never left with a lone surrogate the store would refuse.
 */

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff
}

/**
 * The first `units` code units of a text, one fewer when the cut would split a surrogate pair.
 *
 * @param text - any text
 * @param units - how many UTF-16 code units to keep at most
 * @returns a prefix of `text`
 */
export function headOf(text: string, units: number): string {
  if (units <= 0) return ''
  if (units >= text.length) return text
  const splits = isHighSurrogate(text.charCodeAt(units - 1)) && isLowSurrogate(text.charCodeAt(units))
  return text.slice(0, splits ? units - 1 : units)
}

/**
 * The last `units` code units of a text, one fewer when the cut would split a surrogate pair.
 *
 * @param text - any text
 * @param units - how many UTF-16 code units to keep at most
 * @returns a suffix of `text`
 */
export function tailOf(text: string, units: number): string {
  if (units <= 0) return ''
  if (units >= text.length) return text
  const start = text.length - units
  const splits = isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))
  return text.slice(splits ? start + 1 : start)
}
