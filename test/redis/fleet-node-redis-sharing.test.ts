// The fleet suite (fleet-suite.ts), its sharing part, with node-redis as every instance's Redis client.
import { fleetSuite } from './fleet-suite.ts';

fleetSuite('node-redis', 'sharing');
