-- Makes the inbox's backing-off messages due now, so a test need not wait out the backoff.
UPDATE inbox.<table>
   SET next_attempt_at = now()
 WHERE processed_at IS NULL AND next_attempt_at > now()
