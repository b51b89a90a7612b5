/**
 * The reference page's viewer: Redoc's self-contained browser bundle (no CDN), copied next to
 * the docs function's bundle at deploy (`bundledFiles` in the route table) and read from
 * node_modules locally.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Relative to the repository root. */
export const DOCS_VIEWER_FILE = 'node_modules/redoc/bundles/redoc.standalone.js';

let viewer: string | undefined;

export function docsViewerScript(): string {
  if (viewer !== undefined) return viewer;
  const besideBundle = path.join(__dirname, path.basename(DOCS_VIEWER_FILE));
  const file = existsSync(besideBundle)
    ? besideBundle
    : path.resolve(__dirname, '..', '..', '..', DOCS_VIEWER_FILE);
  viewer = readFileSync(file, 'utf8');
  return viewer;
}
