/**
 * A word with two neighbouring letters swapped, each way it can be ("suspend" → "usspend",
 * "supsend"…), the slips people make typing; swaps start at letter `first` (0 for any).
 */
export function swapTypos(word: string, first = 0): string[] {
  const typos: string[] = [];
  for (let i = first; i + 1 < word.length; i++) {
    const swapped = `${word.slice(0, i)}${word[i + 1]}${word[i]}${word.slice(i + 2)}`;
    if (swapped !== word) typos.push(swapped);
  }
  return typos;
}
