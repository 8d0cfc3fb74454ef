// A browser app's server process (proxy-server.mjs, react-server.mjs): listen on a free port of
// 127.0.0.1, print APP_URL, MOCK_URL and `lines` for the runner that started it, and close the
// server and the mock service on SIGTERM.
export function serveApp(server, mock, lines = {}) {
  server.listen(0, '127.0.0.1', () => {
    console.log(`APP_URL=http://127.0.0.1:${server.address().port}`);
    for (const [name, value] of Object.entries(lines)) console.log(`${name}=${value}`);
    console.log(`MOCK_URL=${mock.url}`);
  });
  process.on('SIGTERM', async () => {
    server.closeAllConnections();
    server.close();
    await mock.close();
    process.exit(0);
  });
}
