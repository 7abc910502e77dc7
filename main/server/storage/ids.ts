// Records created on any laptop get time-ordered UUIDv7 ids: they never collide when many laptops
// sync into one central instance, and they sort by creation time.
import { v7 as uuidv7 } from 'uuid';

export function newId(): string {
  return uuidv7();
}

export function now(): string {
  return new Date().toISOString();
}
