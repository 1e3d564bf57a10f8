package dev.pginbox.examples.orders;

import static org.springframework.security.config.Customizer.withDefaults;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may call what: the application's own endpoints and the health checks are open; every other
 * Actuator request (the {@code inbox} endpoint's replay and purge above all) needs HTTP basic as a
 * user with role OPERATOR, whose name the audit log then records as the actor.
 */
@Configuration(proxyBeanMethods = false)
class OperatorSecurity {

  @Bean
  SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(
            requests ->
                requests
                    .requestMatchers("/orders", "/stock/**", "/error")
                    .permitAll()
                    .requestMatchers(HttpMethod.GET, "/actuator/health", "/actuator/health/**")
                    .permitAll()
                    .requestMatchers("/actuator/**")
                    .hasRole("OPERATOR")
                    .anyRequest()
                    .denyAll())
        .httpBasic(withDefaults())
        // CSRF rides on credentials a browser sends by itself: the Actuator is an API called with
        // basic auth, and POST /orders takes no credentials at all. Everything else keeps it.
        .csrf(csrf -> csrf.ignoringRequestMatchers("/actuator/**", "/orders"))
        .build();
  }

  /** The operator, from the environment; no password means no start, never a default one. */
  @Bean
  InMemoryUserDetailsManager operators(
      @Value("${example.operator.username:operator}") String username,
      @Value("${example.operator.password:}") String password) {
    if (password.isBlank()) {
      throw new IllegalStateException(
          "example.operator.password is not set: set the environment variable"
              + " EXAMPLE_OPERATOR_PASSWORD to the password of the operator who may call the"
              + " Actuator's write operations");
    }
    return new InMemoryUserDetailsManager(
        User.withUsername(username)
            .password(PasswordEncoderFactories.createDelegatingPasswordEncoder().encode(password))
            .roles("OPERATOR")
            .build());
  }
}
