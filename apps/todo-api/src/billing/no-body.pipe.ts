import { Injectable, PipeTransform } from '@nestjs/common';
import { validationException } from '#libs/common';

/** A route that takes no body: any property sent is refused as unknown (400 VALIDATION_ERROR). */
@Injectable()
export class NoBodyPipe implements PipeTransform<unknown, undefined> {
  transform(value: unknown): undefined {
    const fields = value && typeof value === 'object' ? Object.keys(value) : [];
    if (fields.length > 0) {
      throw validationException(fields.map((field) => ({ field, messages: [`property ${field} should not exist`] })));
    }
    return undefined;
  }
}
