// What the rest of the API host uses of the console: the router app.ts mounts, and for other signed-in pages (the
// OAuth authorization server's sign-in and consent) the session, who is signed in, the CSRF helpers and the page frame.
export { consoleRouter, consoleSessionFor, identityDeps, SECTIONS, CONSOLE_CSP, type ConsoleRouterDeps } from './router.js';
export { consoleSession, signedInUser, signIn, signOut, sessionCookie, type SignedInUser, type ConsoleSessionOptions } from './session.js';
export { csrfProtection, csrfToken, sameOriginOnly, isCsrfError, CSRF_FIELD } from './csrf.js';
export { renderConsolePage, postForm, field, notice, type ConsolePage, type NavEntry } from './layout.js';
export { safeNext, CONSOLE_HOME } from './pages/entry.js';
export type { ConsoleSection, ConsoleDeps, SectionRequest } from './section.js';
