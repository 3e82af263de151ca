// `npm run test:pg` runs the end-to-end suite against a real PostgreSQL server: say so clearly when none is configured.
if (!process.env.DATABASE_URL) {
  console.error('test:pg needs DATABASE_URL, e.g. postgres://user:pass@127.0.0.1:5432/postgres (a role allowed to CREATE DATABASE).');
  process.exit(1);
}
