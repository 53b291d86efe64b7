// An export saved as a file. The export is fetched (it carries the workspace header a plain link cannot)
// and handed to the browser as a download.
export function saveDownload(text: string, filename: string, mediaType: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mediaType }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  URL.revokeObjectURL(url);
}
