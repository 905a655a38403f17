/** A measured quantity over repeated runs: its median and range. */
export interface Stat {
  median: number;
  min: number;
  max: number;
  runs: number;
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
