/**
 * URL slug of a title: letters (with their marks) and digits of any script, joined by hyphens.
 * Accents come off Latin letters (`café` → `cafe`, as WordPress's `remove_accents` does); in
 * other scripts the marks are part of the letter (`ガ`, `हि`, `คู่`, `й`) and stay. The result is in
 * NFC, the form browsers send, so a Hangul title is not left as loose jamo.
 */
export function slugify(title: string, maxLength = 190): string {
  const slug = title
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const characters = [...slug];
  if (characters.length <= maxLength) return slug;
  // Too long: cut after the last whole word that fits (never inside a letter and its marks).
  const cut = characters.slice(0, maxLength + 1).join('');
  const lastHyphen = cut.lastIndexOf('-');
  return (lastHyphen > 0 ? cut.slice(0, lastHyphen) : characters.slice(0, maxLength).join('')).replace(
    /-+$/,
    '',
  );
}

/** WordPress keeps non-ASCII slugs percent-encoded; clients get them as text. */
export function readableSlug(slug: string): string {
  try {
    return decodeURIComponent(slug);
  } catch {
    return slug;
  }
}
