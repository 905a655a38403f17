/**
 * The arithmetic of a group's endpoints: a URL is an endpoint's identity in its group (the service
 * sets the name of a URL added again), so every difference is computed by URL, names compared too.
 */
import type { UrlGroupEndpoint } from "../../api/urlGroupSchemas";

/** The service reads an absent name as empty: both mean "no name". */
const nameOf = (e: { name?: string }) => (e.name === "" ? undefined : e.name);

export const normalized = (e: { url: string; name?: string }): UrlGroupEndpoint =>
  nameOf(e) === undefined ? { url: e.url } : { url: e.url, name: nameOf(e) };

/** What to send so that every endpoint of `wanted` is in `present` with its name. */
export function missingFrom(
  present: readonly UrlGroupEndpoint[],
  wanted: readonly UrlGroupEndpoint[],
): UrlGroupEndpoint[] {
  return wanted.filter((w) => !present.some((p) => p.url === w.url && nameOf(p) === nameOf(w)));
}

/** The URLs of `from` that `wanted` does not list. */
export function urlsNotIn(from: readonly { url: string }[], wanted: readonly { url: string }[]): string[] {
  return from.filter((f) => !wanted.some((w) => w.url === f.url)).map((f) => f.url);
}

/** The same endpoints with the same names, in any order. */
export function sameEndpoints(a: readonly UrlGroupEndpoint[], b: readonly UrlGroupEndpoint[]): boolean {
  return a.length === b.length && missingFrom(a, b).length === 0 && missingFrom(b, a).length === 0;
}
