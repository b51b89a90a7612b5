import { apiHandler } from './http/api-handler';
import { compressedPage } from './http/compressed-page';
import { docsViewerScript } from './openapi/docs-viewer';
import { servedDocument } from './openapi/served-document';

/** Scripts are inline (the viewer and the document); Redoc styles inline and searches in a blob worker. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** JSON inside a <script> element: nothing in it may close the element. */
function scriptSafe(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The page for one base URL, built once per process (1.4 MB: Redoc's bundle and the document). */
const pages = new Map<string, string>();

function docsPage(baseUrl: string): string {
  let page = pages.get(baseUrl);
  if (page === undefined) {
    if (pages.size >= 4) pages.clear();
    page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inkpress API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<div id="reference"></div>
<script>${docsViewerScript()}</script>
<script>
Redoc.init(${scriptSafe(JSON.stringify(servedDocument(baseUrl)))}, { hideDownloadButton: false, expandResponses: '200,201,202' }, document.getElementById('reference'));
</script>
</body>
</html>
`;
    pages.set(baseUrl, page);
  }
  return page;
}

/**
 * `GET /docs`: the API reference, rendered by Redoc from the OpenAPI document. No token needed.
 * Compressed, with an ETag and 304 answers (compressed-page.ts).
 */
export const handler = apiHandler(
  'DocsPage',
  () => ({}),
  async ({ baseUrl, headers }) =>
    compressedPage(headers, docsPage(baseUrl), {
      cacheSeconds: 300,
      contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    }),
);
