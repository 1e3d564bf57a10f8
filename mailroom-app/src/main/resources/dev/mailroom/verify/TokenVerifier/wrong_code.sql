-- A wrong code for the password recovery token with this secret (parameter 2): counted, and at
-- the limit (parameter 1) the token is burned, consumed for good. Only a recovery token that could
-- still be used counts. The row lock serialises concurrent attempts, so none is lost. Returns the
-- new count, or no row when nothing was counted (no such token: a forged or mistyped link).
UPDATE public.tokens
SET failed_attempts = failed_attempts + 1,
    consumed_at = CASE WHEN failed_attempts + 1 >= ? THEN extract(epoch FROM now())
                       ELSE consumed_at END
WHERE secret = ?
  AND action = 'password_recovery'
  AND consumed_at IS NULL
  AND expires_at > extract(epoch FROM now())
RETURNING failed_attempts
