import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { validationException } from './validation.js';

/** Path parameter that must be an integer >= 1 (and fit a Postgres integer). */
@Injectable()
export class PositiveIntPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const parsed = /^[0-9]{1,10}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 2147483647) {
      const field = metadata.data ?? 'id';
      throw validationException([{ field, messages: [`${field} must be a whole number of at least 1`] }], `The path id ${field} must be a whole number of at least 1`);
    }
    return parsed;
  }
}
