SELECT * FROM inbox.claim_${inbox}(?, ?::integer[])
