package dev.colloquy.http.auth;

/**
 * Why a credential was refused. Only this code is logged, never the credential; the client gets one
 * message for all of them, so a refusal tells an attacker nothing about which part was wrong.
 */
enum Refusal {
  MISSING,
  MALFORMED,
  TOO_LARGE,
  UNKNOWN_KEY,
  WRONG_SECRET,
  REVOKED_KEY,
  JWT_NOT_CONFIGURED,
  JWT_ALGORITHM,
  JWT_SIGNATURE,
  JWT_EXPIRED,
  JWT_NOT_YET_VALID,
  JWT_MISSING_EXPIRY,
  JWT_ISSUED_IN_FUTURE,
  JWT_AUDIENCE,
  JWT_ISSUER,
  JWT_SUBJECT,
  JWT_INVALID,
  UNKNOWN_TENANT,
  NO_TENANT,
  INVALID_USER_ID,
  /** A key presented with the other kind's prefix: a public key's id never opens the full API. */
  WRONG_KIND,
  /** A public key without the visitor id the widget sends in {@code X-User-Id}. */
  INVALID_VISITOR_ID
}
