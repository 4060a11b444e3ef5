// The creator tool server as an OAuth protected resource (RFC 9728): its URL `BASE/mcp`, its metadata, its challenges and the verifier of its tokens.
import type { Config } from '../../../core/config/load.js';
import { protectedResourceMetadata, resourceMetadataUrl } from '../../auth/challenge.js';
import { REQUIRED_SCOPE, type TokenVerifier } from '../../auth/jwt.js';

/** Where the creator tool server is served on the API host. */
export const CREATOR_MCP_PATH = '/mcp';

/** The resource identifier of the creator tool server, exactly `BASE/mcp` (no trailing slash: strict clients compare it byte for byte). */
export function creatorResource(publicBaseUrl: string): string {
  return `${publicBaseUrl}${CREATOR_MCP_PATH}`;
}

/** Address of its metadata document: RFC 9728 §3.1, the well-known path with the resource's path appended. */
export function creatorMetadataUrl(publicBaseUrl: string): string {
  return `${resourceMetadataUrl(publicBaseUrl)}${CREATOR_MCP_PATH}`;
}

/** Its RFC 9728 metadata: the root document's authorization servers and scope, with `resource` exactly `BASE/mcp`. */
export function creatorResourceMetadata(config: Pick<Config, 'publicBaseUrl' | 'authorizationServers'>) {
  const { authorization_servers, scopes_supported, bearer_methods_supported } = protectedResourceMetadata(config);
  return {
    resource: creatorResource(config.publicBaseUrl),
    authorization_servers,
    scopes_supported,
    bearer_methods_supported,
    resource_name: 'Creator Content API: creator tool server (MCP)',
  };
}

/** `WWW-Authenticate` of a 401 here (amendment A2's form, realm `mcp`): `error="invalid_token"` only when a credential was presented. */
export function creatorBearerChallenge(publicBaseUrl: string, { credentialPresented }: { credentialPresented: boolean }): string {
  const params = [`realm="mcp"`, `resource_metadata="${creatorMetadataUrl(publicBaseUrl)}"`, `scope="${REQUIRED_SCOPE}"`];
  if (credentialPresented) params.push(`error="invalid_token"`);
  return `Bearer ${params.join(', ')}`;
}

/** `WWW-Authenticate` of a 403 `insufficient_scope` here (RFC 6750 §3.1): the MCP client's step-up asks for the scope named. */
export function creatorScopeChallenge(publicBaseUrl: string): string {
  return `Bearer error="insufficient_scope", scope="${REQUIRED_SCOPE}", resource_metadata="${creatorMetadataUrl(publicBaseUrl)}", realm="mcp"`;
}

/**
 * The verifier of the creator tool server's access tokens: the app's verifier (the same keys, issuers, grant check and
 * scope rule) asked for the audience `BASE/mcp` instead of `BASE`, so a token for the REST API is refused here and one
 * for this server is refused by REST.
 */
export function creatorTokenVerifier(verifier: TokenVerifier, publicBaseUrl: string): TokenVerifier {
  const audience = creatorResource(publicBaseUrl);
  return {
    enabled: verifier.enabled,
    verify: (token) => verifier.verify(token, { audience }),
    mayBeValid: (token) => verifier.mayBeValid(token, { audience }),
  };
}
