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

/**
 * Mends one-swap slips of the given words in a text ("Try aagin" → "Try again"), keeping a capital
 * first letter; slips keep a word's first letter, and a slip that is itself one of the words stays.
 */
export function typoMender(words: readonly string[]): (text: string) => string {
  const mends = new Map<string, string>();
  for (const word of words)
    for (const typo of swapTypos(word, 1)) if (!words.includes(typo)) mends.set(typo, word);
  const slips = new RegExp(`\\b(${[...mends.keys()].join("|")})\\b`, "gi");
  return (text) =>
    text.replace(slips, (typo) => {
      const word = mends.get(typo.toLowerCase()) ?? typo;
      return typo[0] === typo[0]?.toLowerCase()
        ? word
        : `${word[0]?.toUpperCase()}${word.slice(1)}`;
    });
}
