import type { ReactNode } from 'react';

export const metadata = { title: 'omnimedia through the proxy' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
