/**
 * The two pages a browser may be shown by the login endpoints: the username/password form and the TOTP
 * form. Minimal, self-contained HTML (no script, inline style only); every value is escaped.
 */

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style>
</head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

function error(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escape(message)}</p>` : '';
}

/** The password login form; it posts `id`, `username` and `password` back to `/oidc/login/username`. */
export function loginPage(base: string, id: string, message?: string): string {
  return page(
    'Sign in',
    `${error(message)}<form method="post" action="${escape(base)}/login/username">
<input type="hidden" name="id" value="${escape(id)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>`,
  );
}

/** The TOTP form; it posts `id` and `code` to `/oidc/login/totp`. */
export function totpPage(base: string, id: string, message?: string): string {
  return page(
    'Verification code',
    `${error(message)}<form method="post" action="${escape(base)}/login/totp">
<input type="hidden" name="id" value="${escape(id)}">
<label for="code">Code from your authenticator app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Verify</button></form>`,
  );
}
