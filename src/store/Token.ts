/** Tokens are minted in the domain (src/domain/Token.ts); the store keeps what it is given. */
export { rejectedRowToken as rowToken, TOKEN_LENGTH, TOKEN_PATTERN } from "../domain/Token.ts"
