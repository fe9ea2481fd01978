"""rclpy adapters: each node converts messages, calls the core and publishes the result."""
