// An export saved as a file. The export is fetched (it carries the workspace header a plain link cannot)
// and handed to the browser as a download.
const REVOKE_AFTER_MS = 60_000;

export function saveDownload(text: string, filename: string, mediaType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  // Not at once: a browser may still be reading the blob when click() returns (FileSaver waits too).
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
