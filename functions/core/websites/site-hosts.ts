/** Which hosts are a website's own: its registered host, with or without `www.`. */

function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
}

/** Whether `host` is the website's own (`www.example.com` and `example.com` are one site). */
export function sameSiteHost(host: string, siteUrl: string): boolean {
  try {
    return bareHost(host) === bareHost(new URL(siteUrl).hostname);
  } catch {
    return false;
  }
}
