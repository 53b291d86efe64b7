import { isRouteErrorResponse, useRouteError } from 'react-router';

export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error) ? error.statusText : error instanceof Error ? error.message : 'Unknown';
  return (
    <main>
      <h1>Something went wrong</h1>
      <p role="alert">{message}</p>
      <a href="/">Back to the console</a>
    </main>
  );
}
