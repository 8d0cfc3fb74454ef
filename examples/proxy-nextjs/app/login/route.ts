// A demo sign-in (your app's own replaces it and lib/session.ts): sets the HttpOnly session
// cookie that lib/session.ts accepts, then back to the page. The Location is relative: the URL
// Next hands a route handler names localhost, not the host the browser asked for.
export function GET(): Response {
  const session = process.env.DEMO_SESSION;
  if (!session) return new Response('sign-in is not set up (DEMO_SESSION)', { status: 404 });
  return new Response(null, { status: 303, headers: { location: '/', 'set-cookie': `session=${session}; Path=/; HttpOnly; SameSite=Lax` } });
}
