import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '#libs/database';

// For the TypeORM CLI (`npm run migration:run`). The apps run pending migrations themselves at start.
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required for the TypeORM CLI');

export default new DataSource({
  ...dataSourceOptions({ url, poolSize: 2, applicationName: 'typeorm-cli' }),
});
