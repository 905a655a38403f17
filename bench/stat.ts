/** A measured quantity over repeated runs: its median and range. */
export interface Stat {
  median: number;
  min: number;
  max: number;
  runs: number;
}

/** The middle value; of an even count, the mean of the two middle ones. */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const stat = (xs: number[]): Stat => {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    median: sorted[Math.floor(sorted.length / 2)],
    min: sorted[0],
    max: sorted[sorted.length - 1],
    runs: xs.length,
  };
};
