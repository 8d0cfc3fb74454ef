// Your app's session lookup (next-auth's auth(), iron-session, a database...): who asks, or null.
// This demo knows one user, the browser holding the cookie that app/login/route.ts sets.
export async function sessionUser(request: Request): Promise<{ id: string } | null> {
  const token = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  const demo = process.env.DEMO_SESSION;
  return demo && token === demo ? { id: 'demo-user' } : null;
}
