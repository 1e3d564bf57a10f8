-- The ledger of the one-way steps (steps/NNNN_name.sql): one row per step applied to this database,
-- whoever applied it (install.sql, InboxManager.install(), a Flyway or Liquibase migration).
-- inbox.schema_version() is its highest step. Runs before every step, so it must stay re-runnable
-- and may only ever grow (sql/README.md).

-- Every name below resolves to a built-in (pg_catalog) or is schema-qualified: objects that
-- others may create in public never take part (docs/security.md). install.sql sets it too.
SET LOCAL search_path = pg_catalog, pg_temp;

CREATE SCHEMA IF NOT EXISTS inbox;

CREATE TABLE IF NOT EXISTS inbox.schema_steps (
    step        integer PRIMARY KEY CHECK (step >= 1),
    name        text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
);
-- Which steps a database has is no secret (inbox.schema_version() reads it with the caller's
-- rights); only the installer writes it.
REVOKE ALL ON inbox.schema_steps FROM PUBLIC;
GRANT SELECT ON inbox.schema_steps TO PUBLIC;

-- The guard that opens every step: records step p_step as applied now and returns true, or returns
-- false when the ledger has it already (the step's body is then skipped). Steps run in order:
-- applying step n before step n - 1, or a step under another name than the ledger's, is refused,
-- as it means the files were edited after release.
CREATE OR REPLACE FUNCTION inbox.begin_step(p_step integer, p_name text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_recorded text;
BEGIN
    SELECT s.name INTO v_recorded FROM inbox.schema_steps s WHERE s.step = p_step;
    IF FOUND THEN
        IF v_recorded <> p_name THEN
            RAISE EXCEPTION 'inbox schema step % is recorded as "%", these files call it "%"', p_step, v_recorded, p_name
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'a released step must never be renamed or renumbered (sql/README.md)';
        END IF;
        RETURN false;
    END IF;
    IF p_step > 1 AND NOT EXISTS (SELECT 1 FROM inbox.schema_steps s WHERE s.step = p_step - 1) THEN
        RAISE EXCEPTION 'inbox schema step % (%) cannot run before step %', p_step, p_name, p_step - 1
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    INSERT INTO inbox.schema_steps (step, name) VALUES (p_step, p_name);
    RETURN true;
END;
$$;
REVOKE EXECUTE ON FUNCTION inbox.begin_step(integer, text) FROM PUBLIC;
