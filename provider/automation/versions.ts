/** Orders two x.y.z versions: negative, zero or positive as `a` is older, the same or newer (a pre-release suffix is ignored). */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
