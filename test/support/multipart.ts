/** Builds request bodies the way clients send them: multipart/form-data, urlencoded or JSON. */
export function multipartBody(fields: Record<string, string>): { body: Buffer; contentType: string } {
  const boundary = `----inkpress${Math.random().toString(16).slice(2)}`;
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8'),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export function urlencodedBody(fields: Record<string, string>): { body: string; contentType: string } {
  return { body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' };
}
