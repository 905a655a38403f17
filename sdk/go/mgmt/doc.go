// Search indexes, messaging accounts, budgets, flow control keys and queues of the management API, as code.
package mgmt
