/**
 * The reference page's viewer: Redoc's self-contained browser bundle (no CDN), copied next to
 * the docs function's bundle at deploy (`bundledFiles` in the route table) and read from
 * node_modules locally.
 */
import { readBundledFile } from '../../shared/bundled-files';

/** Relative to the repository root. */
export const DOCS_VIEWER_FILE = 'node_modules/redoc/bundles/redoc.standalone.js';

export function docsViewerScript(): string {
  return readBundledFile(DOCS_VIEWER_FILE);
}
