import { CONSOLE_VERSION } from './assets.gen';

/** The console's one HTML page: no inline script or style (the CSP forbids both). */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>Console · Support Platform</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/console/assets/console.css?v=${CONSOLE_VERSION}">
  <script type="module" src="/console/assets/console.js?v=${CONSOLE_VERSION}"></script>
</head>
<body>
  <div id="console"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
