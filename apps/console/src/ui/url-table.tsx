// URLs to give someone or something outside the console, one a row: what it is, the URL, a copy button.
import { CopyButton } from './copy-button';

export type UrlRow = {
  key: string;
  label: string;
  url: string /** For the copy button: "the <what>". */;
  what: string;
};

export function UrlTable(props: { caption: string; labelHeader: string; urlHeader: string; rows: UrlRow[] }) {
  return (
    <table>
      <caption className="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.labelHeader}</th>
          <th scope="col">{props.urlHeader}</th>
          <th scope="col">
            <span className="visually-hidden">Copy</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.key}>
            <th scope="row">{row.label}</th>
            <td>
              <code>{row.url}</code>
            </td>
            <td>
              <CopyButton text={row.url} what={row.what} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
