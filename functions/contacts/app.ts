import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { companiesApp } from './companies-routes';
import { contactsApp } from './contacts-routes';
import { syncApp } from './sync/routes';

/**
 * Contacts and companies (dashboard v2) and contact sync from external helpdesks (`/api/sync`).
 * docs/contacts.md describes every route, the sync providers' APIs and the event rules.
 */
export const app = new Hono<AppEnv>();
app.route('/', contactsApp);
app.route('/', companiesApp);
app.route('/', syncApp);
