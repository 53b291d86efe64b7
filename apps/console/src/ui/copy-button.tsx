// Copies a text (an endpoint, a config snippet) to the clipboard and says so, or says that the browser
// refused: the text stays on the page to select by hand.
import { useState } from 'react';

export function CopyButton({ text, what }: { text: string; what: string }) {
  const [outcome, setOutcome] = useState<string>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setOutcome(`Copied the ${what}.`);
    } catch {
      setOutcome(`The browser refused the clipboard: select the ${what} instead.`);
    }
  };
  return (
    <span className="copy">
      <button type="button" aria-label={`Copy the ${what}`} onClick={() => void copy()}>
        Copy
      </button>
      <span role="status">{outcome}</span>
    </span>
  );
}
