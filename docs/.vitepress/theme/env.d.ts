// Vite's module types (the stylesheet import of index.ts) for the type check of the site's theme.
/// <reference types="vite/client" />
