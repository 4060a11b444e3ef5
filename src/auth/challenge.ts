// The 401 and 403 insufficient_scope challenges and the RFC 9728 metadata document it points at (decision 10).
import type { Config } from '../../core/config/load.js';
import { REQUIRED_SCOPE } from './jwt.js';

/** Address of the protected resource metadata document. */
export function resourceMetadataUrl(publicBaseUrl: string): string {
  return `${publicBaseUrl}/.well-known/oauth-protected-resource`;
}

/** `WWW-Authenticate` value of a 401; `error="invalid_token"` only when a credential was presented. */
export function bearerChallenge(publicBaseUrl: string, { credentialPresented }: { credentialPresented: boolean }): string {
  const params = [`realm="api"`, `resource_metadata="${resourceMetadataUrl(publicBaseUrl)}"`, `scope="${REQUIRED_SCOPE}"`];
  if (credentialPresented) params.push(`error="invalid_token"`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * `WWW-Authenticate` value of a 403 `insufficient_scope` (RFC 6750 §3.1): the token is valid, the scope it needs is named,
 * so a client (the MCP authorization flow's step-up) asks the authorization server for a token with that scope.
 */
export function scopeChallenge(publicBaseUrl: string): string {
  return `Bearer error="insufficient_scope", scope="${REQUIRED_SCOPE}", resource_metadata="${resourceMetadataUrl(publicBaseUrl)}", realm="api"`;
}

/** RFC 9728 protected resource metadata; `resource` is also the default token audience. This service's own authorization server, when it runs, is named first. */
export function protectedResourceMetadata(config: Pick<Config, 'publicBaseUrl' | 'authorizationServers'>, { localIssuer }: { localIssuer?: string | undefined } = {}) {
  return {
    resource: config.publicBaseUrl,
    authorization_servers: localIssuer ? [localIssuer, ...config.authorizationServers.filter((server) => server !== localIssuer)] : config.authorizationServers,
    scopes_supported: [REQUIRED_SCOPE],
    bearer_methods_supported: ['header' as const],
    resource_name: 'Creator Content API',
    resource_documentation: `${config.publicBaseUrl}/api/v1/openapi.json`,
  };
}
