// A signing secret the API shows this once (a create, a rotation): on the page until the person moves
// on, never cached or put in the URL or history, with a copy button.
import { CopyButton } from '../ui/copy-button';

export function WebhookSecretOnce({ secret }: { secret: string }) {
  return (
    <section aria-label="Signing secret" className="secret-once">
      <p>
        <strong>Signing secret, shown this once:</strong> store it now in your receiver; the console cannot show it
        again (rotate it to get a new one).
      </p>
      <code>{secret}</code> <CopyButton text={secret} what="signing secret" />
    </section>
  );
}
