import type { HttpClientConfig } from "../config/types.js";

/**
 * The credentials a request to `url` carries, as the operator configured them, for a 401 or 403:
 * setting names, file paths and the basic_auth user name; never a password, token or file's content.
 */
export function credentialsUsed(url: string, http: HttpClientConfig | undefined): string {
  const sent: string[] = [];
  const login = loginSent(url, http);
  if (login) sent.push(login);
  if (http?.tls.certFile) sent.push(`a client certificate from tls_config.cert_file ${http.tls.certFile}`);
  if (sent.length === 0) return "no credentials configured (basic_auth, authorization or tls_config.cert_file)";
  return `credentials sent: ${sent.join(" and ")}`;
}

/** What the Authorization header was made from; basic_auth and authorization take precedence over the URL's user. */
function loginSent(url: string, http: HttpClientConfig | undefined): string | undefined {
  if (http?.basicAuth) {
    const { username, password, passwordFile } = http.basicAuth;
    const from = passwordFile
      ? `the password from basic_auth.password_file ${passwordFile}`
      : password
        ? "the password from basic_auth.password"
        : "an empty password";
    return `basic_auth user ${JSON.stringify(username)} with ${from}`;
  }
  if (http?.authorization) {
    const { type, credentials, credentialsFile } = http.authorization;
    const from = credentialsFile
      ? `from authorization.credentials_file ${credentialsFile}`
      : credentials
        ? "from authorization.credentials"
        : "that is empty";
    return `an authorization ${type} token ${from}`;
  }
  return urlLogin(url);
}

function urlLogin(url: string): string | undefined {
  try {
    const { username, password } = new URL(url);
    if (!username && !password) return undefined;
    return `the user ${JSON.stringify(decodeURIComponent(username))} and password written in the URL`;
  } catch {
    return undefined;
  }
}
